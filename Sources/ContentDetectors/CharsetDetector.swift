#if canImport(Glibc)
internal import Glibc
#endif

/// Guesses the character set of text from its first bytes.
///
/// Order: byte-order mark, UTF-16 by the pattern of NUL bytes, plain ASCII, valid UTF-8, and
/// finally legacy encodings scored by decoding with iconv and measuring how many of the decoded
/// characters are among the most frequent ones of the language the encoding serves.
enum CharsetDetector {
    /// Returns the charset name, or `nil` if the bytes look binary.
    static func detect(_ head: [UInt8], truncated: Bool) -> String? {
        if head.count >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF { return "utf-8" }
        if head.count >= 2 && head[0] == 0xFF && head[1] == 0xFE { return "utf-16le" }
        if head.count >= 2 && head[0] == 0xFE && head[1] == 0xFF { return "utf-16be" }
        if let utf16 = utf16ByNulPattern(head) { return utf16 }
        var hasHigh = false
        for b in head {
            if b == 0 { return nil }
            if b >= 0x80 { hasHigh = true }
        }
        if !hasHigh { return "us-ascii" }
        // Valid UTF-8, or UTF-8 with a few stray bytes (which are replaced when read).
        let census = utf8Census(head, truncated: truncated)
        if census.invalid == 0 || census.valid >= 4 * census.invalid { return "utf-8" }
        return legacy(head)
    }

    static func utf16ByNulPattern(_ head: [UInt8]) -> String? {
        let pairs = head.count / 2
        guard pairs >= 2 else { return nil }
        var evenZero = 0, oddZero = 0
        for k in 0..<pairs {
            if head[2 * k] == 0 { evenZero += 1 }
            if head[2 * k + 1] == 0 { oddZero += 1 }
        }
        if oddZero * 10 >= pairs * 3 && evenZero * 50 < pairs { return "utf-16le" }
        if evenZero * 10 >= pairs * 3 && oddZero * 50 < pairs { return "utf-16be" }
        return nil
    }

    /// Counts valid multi-byte UTF-8 sequences and invalid bytes.
    static func utf8Census(_ bytes: [UInt8], truncated: Bool) -> (valid: Int, invalid: Int) {
        var i = 0, valid = 0, invalid = 0
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            if b < 0x80 {
                i += 1
                continue
            }
            let need: Int
            switch b {
            case 0xC2...0xDF: need = 1
            case 0xE0...0xEF: need = 2
            case 0xF0...0xF4: need = 3
            default:
                invalid += 1
                i += 1
                continue
            }
            if i + need >= n {
                if !truncated { invalid += 1 }
                break
            }
            var ok = true
            for k in 1...need where bytes[i + k] & 0xC0 != 0x80 { ok = false }
            if ok && need == 2 {
                let v = (UInt32(b & 0x0F) << 12) | (UInt32(bytes[i + 1] & 0x3F) << 6)
                if v < 0x800 || (v >= 0xD800 && v <= 0xDFFF) { ok = false }
            } else if ok && need == 3 {
                let v = (UInt32(b & 0x07) << 18) | (UInt32(bytes[i + 1] & 0x3F) << 12)
                if v < 0x10000 || v > 0x10FFFF { ok = false }
            }
            if ok {
                valid += 1
                i += need + 1
            } else {
                invalid += 1
                i += 1
            }
        }
        return (valid, invalid)
    }

    private static let simplified = Set(
        "的一是不了在人有我他这个们中来上大为和国地到以说时要就出会可也你对生能而子那得于着下自之年过发后作里用道行所然家种事成方多经么去法学如都同现当没动面起看定天分还进好小部其些主样理心她本前开但因只从想实日军者意无力它与长把机十民第公此已工使情明性知全三又关点正业外将两高间由问很最重并物手应战向头文体政美相见被利什二等产或新己制身果加西斯月话合回特代内信表化老给世位次度门任常先海通教儿原东声提立及比员解水名真论处走义各入几口认条平系气题活尔更别打女变四神总何电数安少报才结反受目太量再感建务做接必场件计管期市直德资命山金指克许统区保至队形社便空决治展马科司五基眼书非则听白却界达光放强即像难且权思王象完设式色路记南品住告类求据程北边死张该交规万取拉格望觉术领共确传师观清今切院让识候带导争运笑飞风步改收根干造言联持组每济车亲极林服快办议往元英士证近失转夫令准布始怎呢存未远叫台单影具罗字爱击流备兵连调深商算质团集百需价花党华城石级整府离况亚请技际约示复病息究线似官火断精满支视消越器容照须九增研写称企八功吗包片史委乎查轻易早曾除农找装广显吧阿李标谈吃图念六引历首医局突专费号尽另周较注语仅考落青随选列武红响虽推势参希古众构房半节土投某案黑维革划敌致陈律足态护七兴派孩验责营星够章音跟志底站严巴例防族供效续施留讲型料终答紧黄绝奇察母京段依批群项故按河米围江织害斗双境客纪采举杀攻父苏密低朝友诉止细愿千值仍男钱破网热助倒育属坐帝限船脸职速刻乐否刚威毛状率甚独球般普怕弹校苦创假久错承印晚兰试股拿脑预谁益阳若哪微尼继送急血惊伤素药适波夜省初喜卫源食险待述陆习置居劳财环排福纳欢雷警获模充负云停木游龙树疑层冷洲冲射略范竟句室异激汉村哈策演简卡罪判担州静退既衣您宗积余痛检差富灵协角占配征修皮挥胜降阶审沉坚善妈刘读啊超免压银买皇养伊怀执副乱抗犯追帮宣佛岁航优怪香著田铁控税左右份穿艺背阵草脚概恶块顿敢守酒岛托央户烈洋哥索胡款靠评版宝座释景顾弟登货互付伯慢欧换闻危忙核暗姐介坏讨丽良序升监临亮露永呼味野架域沙掉括舰鱼杂误湾吉减编楚肯测败屋跑梦散温困剑渐封救贵枪缺楼县尚毫移娘朋画班智亦耳恩短掌恐遗固席松秘谢鲁遇康虑幸均销钟诗藏赶剧票损忽巨炮旧端探湖录叶春乡附吸予礼港雨呀板庭妇归睛饭额含顺输摇招婚脱补谓督毒油疗旅泽材灭逐莫笔亡鲜词圣择寻厂睡博勒烟授诺伦岸奥唐卖俄炸载洛健堂旁宫喝借君禁阴园谋宋避抓荣姑孙逃牙束跳顶玉镇雪午练迫爷篇肉嘴馆遍凡础洞卷坦牛宁纸诸训私庄祖丝翻暴森塔默握戏隐熟骨访弱蒙歌店鬼软典欲萨伙遭盘爸扩盖弄雄稳忘亿刺拥徒姆杨齐赛趣曲刀床迎冰虚玩析窗醒妻透购替塞努休虎扬途侵刑绿兄迅套贸毕唯谷轮库迹尤竞街促延震弃甲伟麻川申缓潜闪售灯针哲络抵朱埃抱鼓植纯夏忍页杰筑折郑贝尊吴秀混臣雅振染盛怒舞圆搞狂措姓残秋培迷诚宽宇猛摆梅毁伸摩盟末乃悲拍丁赵尾傅迪，。、！？：；“”《》"
            .unicodeScalars.map(\.value))
    private static let traditional = Set(
        "的一是不了在人有我他這個們中來上大為和國地到以說時要就出會可也你對生能而子那得於著下自之年過發後作裡用道行所然家種事成方多經麼去法學如都同現當沒動面起看定天分還進好小部其些主樣理心她本前開但因只從想實日軍者意無力它與長把機十民第公此已工使情明性知全三又關點正業外將兩高間由問很最重並物手應戰向頭文體政美相見被利什二等產或新己制身果加西斯月話合回特代內信表化老給世位次度門任常先海通教兒原東聲提立及比員解水名真論處走義各入幾口認條平系氣題活爾更別打女變四神總何電數安少報才結反受目太量再感建務做接必場件計管期市直德資命山金指克許統區保至隊形社便空決治展馬科司五基眼書非則聽白卻界達光放強即像難且權思王象完設式色路記南品住告類求據程北邊死張該交規萬取拉格望覺術領共確傳師觀清今切院讓識候帶導爭運笑飛風步改收根乾造言聯持組每濟車親極林服快辦議往元英士證近失轉夫令準布始怎呢存未遠叫台單影具羅字愛擊流備兵連調深商算質團集百需價花黨華城石級整府離況亞請技際約示復病息究線似官火斷精滿支視消越器容照須九增研寫稱企八功嗎包片史委乎查輕易早曾除農找裝廣顯吧阿李標談吃圖念六引歷首醫局突專費號盡另周較注語僅考落青隨選列武紅響雖推勢參希古眾構房半節土投某案黑維革劃敵致陳律足態護七興派孩驗責營星夠章音跟志底站嚴巴例防族供效續施留講型料終答緊黃絕奇察母京段依批群項故按河米圍江織害鬥雙境客紀採舉殺攻父蘇密低朝友訴止細願千值仍男錢破網熱助倒育屬坐帝限船臉職速刻樂否剛威毛狀率甚獨球般普怕彈校苦創假久錯承印晚蘭試股拿腦預誰益陽若哪微尼繼送急血驚傷素藥適波夜省初喜衛源食險待述陸習置居勞財環排福納歡雷警獲模充負雲停木遊龍樹疑層冷洲衝射略範竟句室異激漢村哈策演簡卡罪判擔州靜退既衣您宗積餘痛檢差富靈協角佔配徵修皮揮勝降階審沉堅善媽劉讀啊超免壓銀買皇養伊懷執副亂抗犯追幫宣佛歲航優怪香田鐵控稅左右份穿藝背陣草腳概惡塊頓敢守酒島托央戶烈洋哥索胡款靠評版寶座釋景顧弟登貨互付伯慢歐換聞危忙核暗姐介壞討麗良序升監臨亮露永呼味野架域沙掉括艦魚雜誤灣吉減編楚肯測敗屋跑夢散溫困劍漸封救貴槍缺樓縣尚毫移娘朋畫班智亦耳恩短掌恐遺固席松秘謝魯遇康慮幸均銷鐘詩藏趕劇票損忽巨炮舊端探湖錄葉春鄉附吸予禮港雨呀板庭婦歸睛飯額含順輸搖招婚脫補謂督毒油療旅澤材滅逐莫筆亡鮮詞聖擇尋廠睡博勒煙授諾倫岸奧唐賣俄炸載洛健堂旁宮喝借君禁陰園謀宋避抓榮姑孫逃牙束跳頂玉鎮雪午練迫爺篇肉嘴館遍凡礎洞卷坦牛寧紙諸訓私莊祖絲翻暴森塔默握戲隱熟骨訪弱蒙歌店鬼軟典欲薩夥遭盤爸擴蓋弄雄穩忘億刺擁徒姆楊齊賽趣曲刀床迎冰虛玩析窗醒妻透購替塞努休虎揚途侵刑綠兄迅套貿畢唯谷輪庫跡尤競街促延震棄甲偉麻川申緩潛閃售燈針哲絡抵朱埃抱鼓植純夏忍頁傑築折鄭貝尊吳秀混臣雅振染盛怒舞圓搞狂措姓殘秋培迷誠寬宇猛擺梅毀伸摩盟末乃悲拍丁趙尾傅迪，。、！？：；「」"
            .unicodeScalars.map(\.value))
    private static let hangul = Set(
        "이다는에의가고하을를지서기한도로사리자수대인시정으어아나들것내해있국게그일보면요니상제만부여전적와과주성문라학소우연화원장동경생실마비계중세무위관구진명개공발신분식조오거통방법되안용물모결행표선체심금현당회설치단영업목교차였었했할저없울너말게까래려음습합했던며든데않또더때서도록처럼께죠네요요아요"
            .unicodeScalars.map(\.value))

    private struct Candidate {
        let name: String
        let iconv: String
        let common: Set<UInt32>
        let kana: Bool
    }

    private static let candidates: [Candidate] = [
        Candidate(name: "gb18030", iconv: "GB18030", common: simplified, kana: false),
        Candidate(name: "big5", iconv: "CP950", common: traditional, kana: false),
        Candidate(name: "shift_jis", iconv: "CP932", common: simplified.union(traditional), kana: true),
        Candidate(name: "euc-kr", iconv: "CP949", common: hangul, kana: false)
    ]

    static func legacy(_ head: [UInt8]) -> String {
        var bestName = ""
        var bestScore = 0.0
        for candidate in candidates {
            guard let decoded = decode(head, with: candidate.iconv) else { continue }
            var nonASCII = 0, common = 0
            for v in decoded where v >= 0x80 {
                nonASCII += 1
                if candidate.common.contains(v) || (candidate.kana && (0x3041...0x30FF).contains(v)) { common += 1 }
            }
            guard nonASCII > 0 else { continue }
            let score = Double(common) / Double(nonASCII)
            if score > bestScore {
                bestScore = score
                bestName = candidate.name
            }
        }
        if bestScore >= 0.15 { return bestName }
        for b in head where b >= 0x80 && b <= 0x9F && b != 0x81 && b != 0x8D && b != 0x8F && b != 0x90 && b != 0x9D {
            return "windows-1252"
        }
        return "iso-8859-1"
    }

    /// Decodes strictly; `nil` if more than 1 in 50 characters is invalid.
    private static func decode(_ bytes: [UInt8], with name: String) -> [UInt32]? {
        // U+FFFD in UTF-32LE stands for each invalid byte; a sample cut mid-character just ends.
        guard
            let result = Transcoder.convertWhole(
                bytes, from: name, to: "UTF-32LE", replacement: [0xFD, 0xFF, 0, 0],
                truncatedEndIsInvalid: false)
        else { return nil }
        let scalars: [UInt32] = result.output.withUnsafeBytes { raw in
            (0..<raw.count / 4).map { UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self)) }
        }.filter { $0 != 0xFFFD }
        if result.invalid * 50 > max(scalars.count, 1) { return nil }
        return scalars
    }
}
